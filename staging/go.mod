module staging

go 1.26
